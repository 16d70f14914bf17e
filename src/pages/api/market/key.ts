import { api, ok } from '../../../lib/server/http';
import { marketPublicKey } from '../../../lib/server/market/remote';
import { routeAccess, ANYONE } from '../../../lib/shared/access';

/**
 * This market's ed25519 public key (base64 SPKI DER) and its fingerprint (sha256 of the DER, hex):
 * another Atrium pins it when it connects, and checks every signed release against the pinned key.
 */
export const GET = api(async (ctx) => ok(await marketPublicKey(ctx.locals.runtime.db)));

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({ GET: { ...ANYONE } });
