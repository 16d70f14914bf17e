import { api } from '../../../lib/server/http';
import { handleSendCode } from '../../../lib/server/account/send-code';
import { routeAccess, ANYONE, as } from '../../../lib/shared/access';

/** Sends a text-message code (`template_code` is the event, as BuildAdmin's sms module). */
export const POST = api((ctx) => handleSendCode(ctx, 'mobile'));

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  POST: { ...as(ANYONE, 'refused') },
});
