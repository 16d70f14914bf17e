import { api } from '../../../lib/server/http';
import { handleSendCode } from '../../../lib/server/account/send-code';
import { routeAccess, ANYONE, as } from '../../../lib/shared/access';

/** Sends an e-mail code (events user_register, user_retrieve_pwd, user_change_email, user_email_verify). */
export const POST = api((ctx) => handleSendCode(ctx, 'email'));

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  POST: { ...as(ANYONE, 'refused') },
});
