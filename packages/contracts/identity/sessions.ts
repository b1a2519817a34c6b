// What a session JWT is signed with and names as issuer and audience: identity signs with these,
// every verifier checks them.
export const SESSION_ALGORITHM = "Ed25519";
export const SESSION_ISSUER = "waybill-identity";
export const SESSION_AUDIENCE = "waybill-api";
