import { useEffect, useState } from "preact/hooks";

/** The time now, moved on every half minute: ages ("12 min") stay current without a reload. */
export function useNow(every = 30_000): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), every);
    return () => clearInterval(timer);
  }, [every]);
  return now;
}
