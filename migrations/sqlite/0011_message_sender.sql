-- The user of the token that sent a message (D-44): recorded by the server, never taken from the
-- message. Messages stored before this column have none. The PostgreSQL twin of this file is
-- ../postgres/0011_message_sender.sql.
ALTER TABLE messages ADD COLUMN sender_user TEXT;
