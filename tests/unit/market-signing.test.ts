// The market's signature over a reviewed release (issue 26 item 7): canonical JSON whatever the key
// order, and a signature that fails for any other uid, version, sha256, manifest field or key.
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson, keyFingerprint, releaseBytes, verifyRelease, type SignedRelease } from '../../src/lib/server/market/remote';

const pair = () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { publicKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'), privateKey };
};

const release: SignedRelease = {
  uid: 'math', version: '1.0.0', sha256: 'a'.repeat(64),
  manifest: { uid: 'math', version: '1.0.0', capabilities: ['markdown'], contributes: { markdown: { inline: [{ open: '$', close: '$' }] } }, atrium: '>=0.1.0' },
};

describe('market release signatures', () => {
  it('signs the same bytes whatever order the manifest\'s keys come in', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"e":2,"f":1}]},"b":1}');
    const shuffled = { manifest: { atrium: '>=0.1.0', contributes: { markdown: { inline: [{ close: '$', open: '$' }] } }, capabilities: ['markdown'], version: '1.0.0', uid: 'math' }, sha256: release.sha256, version: '1.0.0', uid: 'math' };
    expect(releaseBytes(shuffled).equals(releaseBytes(release))).toBe(true);
  });

  it('verifies with the signing key only, and not for any changed field', () => {
    const key = pair();
    const signature = sign(null, releaseBytes(release), key.privateKey).toString('base64');
    expect(verifyRelease(key.publicKey, release, signature)).toBe(true);
    expect(verifyRelease(pair().publicKey, release, signature)).toBe(false);
    for (const changed of [
      { ...release, uid: 'maths' },
      { ...release, version: '1.0.1' },
      { ...release, sha256: 'b'.repeat(64) },
      { ...release, manifest: { ...(release.manifest as object), capabilities: ['markdown', 'http:outbound'] } },
    ]) expect(verifyRelease(key.publicKey, changed, signature)).toBe(false);
    expect(verifyRelease(key.publicKey, release, 'not a signature')).toBe(false);
    expect(verifyRelease('not a key', release, signature)).toBe(false);
    expect(keyFingerprint(key.publicKey)).toMatch(/^[0-9a-f]{64}$/);
  });
});
