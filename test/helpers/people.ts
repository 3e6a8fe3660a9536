/** Users' data the suites sign up with. */

/** What the SG rule set asks of a user besides the name and the date of birth. */
export const SG_RESIDENT = {
  phone_number: "+6591234567",
  nationality: "SG",
  country_of_residence: "SG",
  residential_address: { line1: "1 Marina Blvd", city: "Singapore", postal_code: "018989", country: "SG" },
};

/** Everything the SG rule set asks of a user's data; documents and phone verification come on top. */
export const COMPLETE_SG = { first_name: "Mei", last_name: "Lim", date_of_birth: "1988-03-04", ...SG_RESIDENT };
