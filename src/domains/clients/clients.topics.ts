/** The clients module's events. */
declare module "../../platform/bus.js" {
  interface Topics {
    /** a key was rotated or revoked: every instance drops its cached principals */
    "credentials.changed": [event: { clientId: string }];
  }
}

export {};
