/**
 * Every reply the HTTP API suite receives is checked against the OpenAPI document the service
 * publishes: the status must be one the operation documents, and the JSON body must validate against
 * the documented schema (closed objects: no member the document does not name). This keeps
 * `GET /openapi.json` true to what the server actually sends, across every test of the suite.
 *
 * It is a `fetch` wrapper handed to the MarketClient, so provisioning, token grants and every
 * request the tests make are covered without each test asking for it.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule, { type FormatsPlugin } from "ajv-formats";
import { OPERATIONS, openApiDocument, openApiPath, type OperationDoc } from "../../../gateway/openapi/document.js";

// ajv-formats is CommonJS with `exports.default`; under NodeNext the default import is the module.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as FormatsPlugin;

const DOCUMENT_ID = "market-service-openapi";

interface MatchedOperation {
  operation: OperationDoc;
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

const document = openApiDocument({ adminMounted: true }) as {
  paths: Record<string, Record<string, { responses: MatchedOperation["responses"] }>>;
  components: { schemas: Record<string, unknown> };
};

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
// The components are registered under one id so `#/components/schemas/X` refs resolve against it.
ajv.addSchema({ $id: DOCUMENT_ID, components: document.components }, DOCUMENT_ID);

const routes = OPERATIONS.map((operation) => ({
  operation,
  pattern: new RegExp(`^${operation.pattern.replace(/:[A-Za-z]+/g, "[^/]+")}$`),
  responses: (document.paths[openApiPath(operation.pattern)] ?? {})[operation.method.toLowerCase()]?.responses ?? {},
}));

const validators = new Map<string, ValidateFunction>();

function validatorFor(schema: unknown): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (validate === undefined) {
    // Refs in the document are local (`#/components/...`); point them at the registered document.
    const rebased = JSON.parse(key.replaceAll('"#/components/', `"${DOCUMENT_ID}#/components/`)) as object;
    validate = ajv.compile(rebased);
    validators.set(key, validate);
  }
  return validate;
}

/** Throws (failing the test) when a reply does not conform to the document. */
export function assertConforms(method: string, url: string, status: number, bodyText: string, contentType: string | null): void {
  const path = new URL(url).pathname;
  const route = routes.find((r) => r.operation.method === method && r.pattern.test(path));
  // Unknown routes and wrong methods (404/405) are not operations of the document.
  if (route === undefined || route.operation.pattern === "/mcp") return;
  const documented = route.responses[String(status)];
  // The operator route is not mounted (and not documented) without operators: the router's 404.
  if (documented === undefined && route.operation.auth === "operator" && status === 404) return;
  if (documented === undefined) {
    throw new Error(`OpenAPI: ${method} ${route.operation.pattern} answered ${status}, which the document does not list (body: ${bodyText.slice(0, 300)})`);
  }
  const media = documented.content?.["application/json"];
  if (media?.schema === undefined || !(contentType ?? "").startsWith("application/json")) return;
  const validate = validatorFor(media.schema);
  if (!validate(JSON.parse(bodyText))) {
    throw new Error(`OpenAPI: ${method} ${route.operation.pattern} ${status} body does not match the document: ${ajv.errorsText(validate.errors)} (body: ${bodyText.slice(0, 500)})`);
  }
}

/** A fetch that checks every reply against the OpenAPI document before handing it back. */
export const conformingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  const text = await response.clone().text();
  assertConforms(init?.method ?? "GET", url, response.status, text, response.headers.get("content-type"));
  return response;
};
