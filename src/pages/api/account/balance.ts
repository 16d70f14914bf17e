import { api } from '../../../lib/server/http';
import { ledgerReply } from '../../../lib/server/account/ledger-api';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

export const GET = api((ctx) => ledgerReply(ctx, 'money'));

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'account/balance',
  GET: { ...MEMBERS },
});
