/**
 * The Response class every handler builds: whatwg-node's, the one yoga itself uses. A string body
 * in it is written to the socket in one call; Node's own Response would be streamed chunk by chunk
 * through web streams (measured: the largest single cost of a small REST read after Prisma).
 */
export { Response } from "@whatwg-node/fetch";
