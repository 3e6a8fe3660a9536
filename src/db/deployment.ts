/**
 * This deployment's id: what every instance on one database shares and another deployment does
 * not (the default Redis prefix). Its migration writes the one row; should it be gone, the first
 * instance to look writes another, and every instance takes the oldest.
 */
import type { Db } from "./client.js";

/** REDIS_PREFIX when given, else `og:<deployment id>:`. */
export const redisPrefix = async (given: string | undefined, db: Db) => given ?? `og:${await deploymentId(db)}:`;

export async function deploymentId(db: Db): Promise<string> {
  const oldest = () => db.deployment.findFirst({ orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  const found = await oldest();
  if (found) return found.id;
  // two instances starting together may each create one: both then take the oldest
  await db.deployment.create({ data: {} });
  return (await oldest())!.id;
}
