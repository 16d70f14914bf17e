// Solves an ALTCHA proof-of-work challenge off the main thread, speaking the protocol of ALTCHA's
// own workers (`{type: 'work' | 'abort'}` in, the solution or `{error}` out). ALTCHA's SHA worker
// hashes with `crypto.subtle`, which browsers give only to secure contexts; hash-wasm hashes
// anywhere, so a site served over plain HTTP on a LAN address can be signed up to as well.
import { createSHA256, type IHasher } from 'hash-wasm';
import { solveChallenge, type ChallengeParameters, type DeriveKeyFunctionResult } from 'altcha/lib';

let hasher: Promise<IHasher> | null = null;
let controller: AbortController | null = null;

/** ALTCHA's SHA key derivation: SHA-256 of salt‖password, then of the digest, `cost` times in all. */
async function deriveKey(parameters: ChallengeParameters, salt: Uint8Array, password: Uint8Array): Promise<DeriveKeyFunctionResult> {
  const sha = await (hasher ??= createSHA256());
  let data: Uint8Array = new Uint8Array(salt.length + password.length);
  data.set(salt, 0);
  data.set(password, salt.length);
  for (let i = 0; i < Math.max(1, parameters.cost); i++) {
    sha.init();
    sha.update(data);
    data = sha.digest('binary');
  }
  return { derivedKey: data.slice(0, parameters.keyLength ?? 32) };
}

self.onmessage = async (message: MessageEvent): Promise<void> => {
  const { challenge, counterMode, counterStart, counterStep, timeout, type } = message.data ?? {};
  if (type === 'abort') {
    controller?.abort();
    return;
  }
  if (type !== 'work') return;
  controller = new AbortController();
  try {
    self.postMessage(await solveChallenge({ challenge, controller, counterMode, counterStart, counterStep, deriveKey, timeout }));
  } catch (err) {
    self.postMessage({ error: String(err) });
  }
};
