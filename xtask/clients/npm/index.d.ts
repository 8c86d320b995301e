// The types of the npm package `cargo xtask clients --package` builds: every type of the
// contract (`schema.d.ts`, from openapi-typescript) and a client factory typed by its `paths`.
import type { Client, ClientOptions } from "openapi-fetch";
import type { paths } from "./schema.js";

export type * from "./schema.js";

/** An openapi-fetch client of the contract: `client.POST(path, { body })`. */
export default function createCoreClient(options?: ClientOptions): Client<paths>;
