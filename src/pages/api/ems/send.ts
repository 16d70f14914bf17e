import { api } from '../../../lib/server/http';
import { handleSendCode } from '../../../lib/server/account/send-code';

/** Sends an e-mail code (events user_register, user_retrieve_pwd, user_change_email, user_email_verify). */
export const POST = api((ctx) => handleSendCode(ctx, 'email'));
