import { api } from '../../../lib/server/http';
import { handleSendCode } from '../../../lib/server/account/send-code';

/** Sends a text-message code (`template_code` is the event, as BuildAdmin's sms module). */
export const POST = api((ctx) => handleSendCode(ctx, 'mobile'));
