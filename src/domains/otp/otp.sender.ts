/**
 * OTP delivery behind one interface. SANDBOX clients' messages go to the sandbox outbox (a table,
 * read back with GET /v2/sandbox/messages); LIVE clients' go out by SMTP (nodemailer) or by an
 * HTTP SMS provider. An unconfigured LIVE channel has no sender: the caller answers 503. The outbox
 * fails for SANDBOX_OTP.undeliverable as a provider would, so a sandbox can rehearse a failed delivery.
 */
import { createTransport } from "nodemailer";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import { type Channel, undeliverableInSandbox } from "./otp.rules.js";

type OtpMessage = {
  clientId: string;
  userId: string;
  channel: Channel;
  to: string;
  subject: string;
  body: string;
  /** kept only by the sandbox outbox, whose whole point is to show it */
  code: string;
  createdAt: Date;
};

/** One way of getting a message to a person. Throws when the message did not go out. */
interface OtpSender {
  send(message: OtpMessage): Promise<void>;
}

export type Delivery = {
  /** null: this channel is not configured for this mode */
  senderFor(mode: "SANDBOX" | "LIVE", channel: Channel): OtpSender | null;
  /** codes a client may send an hour, every channel and mode together (OTP_SENDS_PER_CLIENT_PER_HOUR) */
  sendsPerClientPerHour: number;
  close(): void;
};

/** How long one delivery may take before it counts as failed. */
const DELIVERY_TIMEOUT_MS = 10_000;

/** What a sandbox send to an undeliverable destination throws: the service's failure path, as a provider's error takes it. */
class SandboxUndeliverable extends Error {
  readonly code = "SANDBOX_UNDELIVERABLE";
  constructor() {
    super("the sandbox delivers nothing to this destination"); // no address: a failure's message may reach a log
  }
}

function sandboxOutbox(db: Db): OtpSender {
  return {
    async send({ clientId, userId, channel, to, body, code, createdAt }) {
      // the magic destinations fail here, not in the service, so a sandbox exercises the failure path a LIVE key would take
      if (undeliverableInSandbox(channel, to)) throw new SandboxUndeliverable();
      await db.sandboxMessage.create({ data: { clientId, userId, channel, to, body, code, createdAt } });
    },
  };
}

function smtpSender(url: string, from: string) {
  const transport = createTransport({
    // a pool keeps SMTP connections open between messages: no TCP + greeting per code
    pool: true,
    maxConnections: 5,
    url,
    connectionTimeout: DELIVERY_TIMEOUT_MS,
    greetingTimeout: DELIVERY_TIMEOUT_MS,
    socketTimeout: DELIVERY_TIMEOUT_MS,
    logger: false, // nodemailer's own log would carry addresses and the message
  });
  const sender: OtpSender = {
    async send({ to, subject, body }) {
      await transport.sendMail({ from, to, subject, text: body });
    },
  };
  return Object.assign(sender, { close: () => transport.close() });
}

function smsWebhookSender(url: string): OtpSender {
  return {
    async send({ to, body }) {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ to, body }),
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
      });
      await res.body?.cancel();
      if (!res.ok) throw new Error(`SMS provider answered ${res.status}`);
    },
  };
}

export function createDelivery(config: Pick<Config, "smtpUrl" | "smsWebhookUrl" | "otpFrom" | "otpSendsPerClientPerHour">, db: Db): Delivery {
  const outbox = sandboxOutbox(db);
  const smtp = config.smtpUrl ? smtpSender(config.smtpUrl, config.otpFrom) : null;
  const sms = config.smsWebhookUrl ? smsWebhookSender(config.smsWebhookUrl) : null;
  return {
    senderFor: (mode, channel) => (mode === "SANDBOX" ? outbox : channel === "EMAIL" ? smtp : sms),
    sendsPerClientPerHour: config.otpSendsPerClientPerHour,
    close: () => smtp?.close(),
  };
}
