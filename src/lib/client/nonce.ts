/** A one-time key for a form: the server answers a resubmission with what the first one created. */
export function formNonce(): string {
  return `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 12)}`;
}
