// The creation time inside an id's ULID body (its first 10 Crockford base-32 characters, in ms).
const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

export function timeOfId(id: string): number {
  const body = id.slice(id.indexOf("_") + 1).toLowerCase();
  let ms = 0;
  for (const char of body.slice(0, 10)) {
    const digit = CROCKFORD.indexOf(char);
    if (digit < 0) throw new Error(`${id} is not a ULID-based id`);
    ms = ms * 32 + digit;
  }
  return ms;
}
