-- A message tid is unique among messages (D-38): a client-given tid names one message.
CREATE UNIQUE INDEX messages_tid ON messages (tid);
