/** The HTTP layer's public surface; route modules import from here. */
export {
  AUTHENTICATION_FAILED_MESSAGE,
  clientMessage,
  type ErrorBody,
  type ErrorCode,
  errorBody,
  type ErrorStatus,
  type ErrorStatusContext,
  fail,
  HttpError,
  INTERNAL_ERROR_MESSAGE,
  SERVICE_ERROR_CODES,
  statusForErrorCode,
} from "./errors.js";
export { RequestHeaders, SINGLETON_HEADERS } from "./headers.js";
export type { LogFields, LogFn, LogLevel } from "./log.js";
export { generateRequestId, isSaneRequestId, MAX_REQUEST_ID_CHARS, REQUEST_ID_HEADER } from "./request-id.js";
export type { HttpHandler, HttpMethod, HttpReply, HttpRequestContext, HttpRoute, JsonReply, SerializedReply, StaticReply, StreamReply } from "./route.js";
export { errorReply, jsonReply } from "./replies.js";
export {
  createHttpServer,
  DEFAULT_HTTP_LIMITS,
  type HttpLimits,
  type HttpServer,
  type HttpServerOptions,
  isLoopbackHost,
  MAX_ROUTE_BODY_BYTES,
} from "./server.js";
export {
  DEFAULT_MAX_JSON_DEPTH,
  DEFAULT_STRICT_JSON_LIMITS,
  type JsonObject,
  type JsonValue,
  parseStrictJson,
  parseStrictJsonText,
  type StrictJsonLimits,
  type StrictJsonResult,
} from "./strict-json/index.js";
export { assertNativeUws, isNativeUws, LISTEN_EXCLUSIVE_PORT, UwsNotNativeError } from "./uws.js";
