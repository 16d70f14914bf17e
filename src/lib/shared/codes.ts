/** Envelope codes (spec §4, reference §0). HTTP status is separate: see `ApiStatus`. */
export const Code = {
  ok: 1,
  error: 0,
  redirect: 302,
  /** With data.type 'need login' or 'logged in'. */
  login: 303,
  noPermission: 401,
  tokenExpired: 409,
} as const;

export interface Envelope<T = unknown> {
  code: number;
  msg: string;
  data: T;
  /** Unix seconds. */
  time: number;
}
