/**
 * The Response class every handler builds: whatwg-node's, the one yoga itself uses. A string body
 * in it is written to the socket in one call; Node's own Response would be streamed chunk by chunk
 * through web streams, a cost out of all proportion to a small REST read (docs/performance.md).
 */
export { Response } from "@whatwg-node/fetch";
