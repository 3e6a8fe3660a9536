/** A refusal a rule throws, caught so a test can compare its code and the fields it names. */
type Refusal = Error & { code?: string; fields?: { field: string; code: string; message: string }[]; meta?: { retryAfter?: number } & Record<string, unknown> };

/** The error `run` throws (undefined when it throws none). */
export const thrown = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error as Refusal;
  }
  return undefined;
};

/** The error `promise` rejects with (undefined when it resolves). */
export const rejection = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return error as Refusal;
  }
  return undefined;
};
