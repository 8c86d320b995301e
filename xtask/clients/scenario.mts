// A short scenario through the installed npm package `core-interface-client` (openapi-typescript's
// types for the served document and openapi-fetch, packaged by `cargo xtask clients`): locales
// retrieve, keywords persist then retrieve, a glossary entry persist, a 404 read as the documented
// error body, classes retrieve and channels retrieve, against a server on the demo catalogue. tsc
// checks it against the installed types before it runs.
//
// node scenario.mjs <base URL> <token>
import createCoreClient, { type components } from "core-interface-client";

declare const process: { argv: string[] };

const [base, token] = process.argv.slice(2);

// openapi-fetch types an answer as the union of every JSON-like media type the document lists for
// it: default JSON and compact JSON. The scenario sends default JSON without `Accept`, so the
// answers come in default JSON, the shape it reads them as.
type PimType = components["schemas"]["PimType"];
type ServiceType = components["schemas"]["ServiceType"];
function json<T>(data: unknown): T | undefined {
  return data as T | undefined;
}

function check(condition: boolean, message: string): asserts condition {
  if (!condition) {
    throw new Error(`typescript client scenario failed: ${message}`);
  }
}

const client = createCoreClient({
  baseUrl: base,
  headers: { Authorization: `Bearer ${token}` },
});
const steps: string[] = [];

const locales = await client.POST("/api/core/v1/common/locales/retrieve", {
  body: { mode: "ALL" },
});
const tids = (json<PimType>(locales.data)?.locales?.locale ?? []).map((locale) => locale.tid);
check(tids.includes("de_DE"), `locales: ${JSON.stringify(locales.data ?? locales.error)}`);
steps.push(`locales retrieve: ${tids.length} locales`);

const name = `TypeScript ${Date.now()}`;
const persisted = await client.POST("/api/core/v1/common/keywords/persist", {
  body: { kwds: { kwd: [{ parentPath: "/Season", name: { itm: [{ value: name }] } }] } },
});
const record = json<PimType>(persisted.data)?.responses?.response?.[0];
check(record?.status === "SUCCESS", `keywords persist: ${JSON.stringify(persisted.data)}`);
const retrieved = await client.POST("/api/core/v1/common/keywords/retrieve", {
  body: { path: "/Season", level: -1 },
});
const paths_ = (json<ServiceType>(retrieved.data)?.kwds?.kwd ?? []).map((kwd) => kwd.path);
check(paths_.includes(`/Season/${name}`), `keywords retrieve: ${paths_.join(", ")}`);
steps.push(`keywords persist then retrieve: /Season/${name}`);

const entries = await client.POST("/api/core/v1/common/glossaryEntries/persist", {
  body: {
    glossaryEntries: {
      glossaryEntry: [
        {
          parentTid: "GL-TEXTILES",
          loc: "en_GB",
          type: "term",
          meta: { itm: [{ key: "value", value: name }] },
        },
      ],
    },
  },
});
const entry = json<PimType>(entries.data)?.responses?.response?.[0];
check(
  entry?.description === "The glossary entry has been created successfully",
  `glossary entry persist: ${JSON.stringify(entries.data ?? entries.error)}`,
);
steps.push("glossary entry persist: created");

const missing = await client.POST("/api/core/v1/common/keywords/retrieve", {
  body: { path: "/Nowhere" },
});
check(missing.response.status === 404, `an unknown path answered ${missing.response.status}`);
const error = missing.error;
check(error?.status === "ERROR" && error.description === "Not found", JSON.stringify(error));
const codes = (error.issues ?? []).flatMap((issue) =>
  (issue.itm ?? []).filter((itm) => itm.key === "code").map((itm) => itm.value),
);
check(JSON.stringify(codes) === '["1006"]', `issue codes ${codes.join(", ")}`);
steps.push("a 404 read as the error body: code 1006");

const classes = await client.POST("/api/core/v1/pim/classes/retrieve", {
  body: { tids: ["Apparel"] },
});
const classTids = (json<PimType>(classes.data)?.classes?.class ?? []).map((found) => found.tid);
check(JSON.stringify(classTids) === '["Apparel"]', `classes retrieve: ${classTids.join(", ")}`);
steps.push("classes retrieve: Apparel");

const channels = await client.POST("/api/core/v1/cm/channels/retrieve", {
  body: { tids: ["WEB-SHOP", "CAT-2027"] },
});
const channelTids = (json<PimType>(channels.data)?.projects?.project ?? []).map((project) => project.tid);
check(
  JSON.stringify(channelTids) === '["WEB-SHOP","CAT-2027"]',
  `channels retrieve: ${channelTids.join(", ")}`,
);
steps.push("channels retrieve: WEB-SHOP, CAT-2027");

console.log(`typescript client: ${steps.join("; ")}`);
