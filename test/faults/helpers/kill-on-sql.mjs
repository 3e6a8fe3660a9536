/**
 * Loaded into a server process with `NODE_OPTIONS=--import=<this file>` and `KILL_ON_SQL=<regex>`:
 * the process kills itself (SIGKILL) as it is about to send the first statement whose text matches,
 * so a fault test can stop it at an exact point of a request (before a write, before an answer is
 * stored) on either database: node-postgres's `query` and PGlite's protocol entry are both watched.
 */
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";

const pattern = process.env.KILL_ON_SQL ? new RegExp(process.env.KILL_ON_SQL, "i") : null;

const killIf = (text) => {
  if (pattern && typeof text === "string" && pattern.test(text)) process.kill(process.pid, "SIGKILL");
};

if (pattern) {
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (config, ...rest) {
    killIf(typeof config === "string" ? config : config?.text);
    return query.call(this, config, ...rest);
  };
  // every statement PGlite runs passes here as protocol messages: a Parse or a simple Query carries the text
  const execProtocolStream = PGlite.prototype.execProtocolStream;
  PGlite.prototype.execProtocolStream = function (message, ...rest) {
    if (message[0] === 0x50 || message[0] === 0x51) killIf(Buffer.from(message).toString("utf8"));
    return execProtocolStream.call(this, message, ...rest);
  };
}
