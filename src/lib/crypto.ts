/** Hashing, HMAC and AES-256-GCM: the only place secrets are turned into stored forms. */
import { createCipheriv, createDecipheriv, createHmac, hash, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";

/** one-shot: no Hash object per call, and every request hashes its API key */
export const sha256 = (text: string) => hash("sha256", text, "hex");

export const randomToken = (bytes = 24) => randomBytes(bytes).toString("base64url");

export function safeEqual(a: string, b: string) {
  const x = Buffer.from(a),
    y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** AES-256-GCM with a random 96-bit IV; output `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export function createCipher(key: Buffer) {
  const macKeys = new Map<string, Buffer>();
  return {
    /** HMAC-SHA256 (hex) under a key derived per purpose (HKDF), never the encryption key itself */
    mac(purpose: string, text: string) {
      let macKey = macKeys.get(purpose);
      if (!macKey) macKeys.set(purpose, (macKey = Buffer.from(hkdfSync("sha256", key, Buffer.alloc(0), `og-mac:${purpose}`, 32))));
      return createHmac("sha256", macKey).update(text).digest("hex");
    },
    encrypt(plain: string) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return ["v1", iv, cipher.getAuthTag(), data].map((p) => (typeof p === "string" ? p : p.toString("base64url"))).join(".");
    },
    decrypt(sealed: string) {
      const [, iv, tag, data] = sealed.split(".").map((p, i) => (i === 0 ? Buffer.alloc(0) : Buffer.from(p, "base64url")));
      const decipher = createDecipheriv("aes-256-gcm", key, iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(data), decipher.final()]).toString("utf8");
    },
  };
}
export type Cipher = ReturnType<typeof createCipher>;
