/**
 * The sandbox's magic inputs: values a SANDBOX client's data may carry to reach an outcome on demand
 * (docs/api.md, "Testing in the sandbox"). A LIVE client's same values mean nothing. Named once here,
 * in the kernel every module may read: each module that honours one imports it.
 */
export const SANDBOX_INPUTS = {
  /** `last_name`: a strong match on the built-in sandbox list entry, screening REJECTED */
  rejectLastName: "SandboxReject",
  /** `last_name`: a possible match on the built-in sandbox list entry, screening CONSIDER */
  reviewLastName: "SandboxReview",
  /** `residential_address.line1`: transaction monitoring CONSIDER with an open alert */
  alertAddressLine: "SandboxAlert",
  /** `document_number`: the document is INVALID, and KYC says why */
  invalidDocumentNumber: "SANDBOXINVALID",
  /** an OTP code that stands in for any active code of the user and channel (the real code still works) */
  anyOtpCode: "000000",
  /** OTP destinations no message reaches: delivery fails as a provider's failure would (Twilio's magic numbers are the model) */
  undeliverable: { SMS: "+15005550001", EMAIL: "fail@sandbox.test" },
  /** a webhook endpoint path ending so has the first three attempts of each event answered 500, nothing sent */
  failingWebhookPath: "/sandbox-fail-3",
} as const;

/** The same value whatever its case and surrounding spaces: integrators type these by hand. */
export const isMagic = (value: string | null | undefined, magic: string) => !!value && value.trim().toLowerCase() === magic.toLowerCase();
