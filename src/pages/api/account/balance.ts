import { api } from '../../../lib/server/http';
import { ledgerReply } from '../../../lib/server/account/ledger-api';

export const GET = api((ctx) => ledgerReply(ctx, 'money'));
