/**
 * PGlite is one process: while the server runs on the embedded database, nothing else may open its
 * data directory. So the server listens on a Unix socket inside DATA_DIR (mode 0600: whoever may
 * read the data may run the commands) and the CLI hands its command to it. The command then runs
 * in the server, with the server's event bus: an import clears the lookup cache at once.
 * One JSON line each way: `{"argv": [...]}` → `{"result": …}` | `{"error": {"usage"|"code"|"message", …}}`.
 */
import { chmod, rm } from "node:fs/promises";
import { createConnection, createServer, type Socket } from "node:net";
import path from "node:path";
import { DomainError } from "../lib/errors.js";
import { runCommand, UsageError, type CommandContext } from "./commands.js";

const controlSocketPath = (dataDir: string) => path.join(dataDir, "control.sock");

export type ControlAnswer = { result?: unknown; error?: { usage?: string; code?: string; detail?: string; errors?: unknown; message?: string } };

/** Server side: returns a stop function. */
export async function serveControlSocket(dataDir: string, context: CommandContext, onError: (error: unknown) => void) {
  const file = controlSocketPath(dataDir);
  await rm(file, { force: true }); // left by a server that did not stop cleanly
  const server = createServer((socket) => {
    let input = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => {
      input += chunk;
      if (!input.includes("\n")) return;
      void answer(socket, input.slice(0, input.indexOf("\n")));
    });
    socket.on("error", () => socket.destroy());
  });
  async function answer(socket: Socket, line: string) {
    let reply: ControlAnswer;
    try {
      const { argv } = JSON.parse(line) as { argv: string[] };
      reply = { result: await runCommand(context, argv) };
    } catch (error) {
      if (error instanceof UsageError) reply = { error: { usage: error.message } };
      else if (error instanceof DomainError) reply = { error: { code: error.code, detail: error.message, errors: error.fields } };
      else {
        onError(error);
        reply = { error: { message: "The command failed in the server; see its log." } };
      }
    }
    socket.end(JSON.stringify(reply) + "\n");
  }
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(file, () => resolve());
  });
  await chmod(file, 0o600);
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}

/** CLI side: the server's answer, or null when no server owns the data directory. */
export function sendToServer(dataDir: string, argv: string[]): Promise<ControlAnswer | null> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(controlSocketPath(dataDir));
    let output = "";
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write(JSON.stringify({ argv }) + "\n"));
    socket.on("data", (chunk) => {
      output += chunk;
    });
    socket.on("end", () => {
      try {
        resolve(JSON.parse(output) as ControlAnswer);
      } catch (error) {
        reject(error);
      }
    });
    socket.on("error", (error: NodeJS.ErrnoException) => {
      // no socket file, or one left behind by a server that is gone
      if (error.code === "ENOENT" || error.code === "ECONNREFUSED") resolve(null);
      else reject(error);
    });
  });
}
