/**
 * The test set's one seeded random stream (mulberry32), shared by every module that draws from it,
 * in the order build-testset.ts calls them: the same seed gives the same files.
 */
/** mulberry32: a small seeded PRNG so the set is the same on every run */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
// TESTSET_SEED / TESTSET_OUT draw a fresh set elsewhere (a hold-out check that the matcher is not fitted to this one)
export const random = rng(Number(process.env.TESTSET_SEED ?? 20240503));
export const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
export const chance = (p: number) => random() < p;
export const shuffle = <T>(xs: T[]): T[] => {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
};
