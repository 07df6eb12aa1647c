/** A URL as it may be shown: user, password or token in the authority removed; anything else as given. */
export function redactUrl(s: string): string {
  try {
    const u = new URL(s);
    if (!u.username && !u.password) return s;
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return s;
  }
}
