// The client of the npm package `cargo xtask clients --package` builds: an openapi-fetch client;
// `index.d.ts` types it with the contract's `paths` (openapi-typescript's `schema.d.ts`).
import createClient from "openapi-fetch";

export default function createCoreClient(options) {
  return createClient(options);
}
