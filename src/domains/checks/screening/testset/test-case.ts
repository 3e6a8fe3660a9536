/** One case of the screening test set (build-testset.ts writes them, evaluate.ts screens them). */
export interface TestCase {
  id: string;
  person: { firstName: string; middleName?: string; lastName: string; dateOfBirth?: string; nationality?: string };
  /** listed: the SDN entry the person is; unlisted: null */
  entryId: string | null;
  /** how the name was changed (listed) or where it comes from (unlisted) */
  variant: string;
  dob: "agree" | "absent" | "conflict";
  nationality: "agree" | "absent" | "conflict";
  /** unlisted only: one of its words is a word of some listed individual's name */
  sharesListedWord?: boolean;
  /** token-sharing only: the SDN entry whose word the person shares */
  sharesWith?: string;
}
