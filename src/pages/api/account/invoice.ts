import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { invoiceableAmount, invoicePage, requestInvoice } from '../../../lib/server/account/invoices';
import { formatMoney } from '../../../lib/server/account/users';
import { PageInput } from '../../../lib/server/account/ledger-api';
import { InvoiceInput } from '../../../lib/shared/validation/account';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, MEMBERS, OWNER } from '../../../lib/shared/access';

/** The member's own invoice requests and the amount still invoiceable. */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  const { page, limit } = await readInput(ctx, PageInput);
  const { db } = ctx.locals.runtime;
  return ok({ ...(await invoicePage(db, member.id, page, limit)), available: formatMoney(await invoiceableAmount(db, member.id)) });
});

/** Requests an invoice for part or all of what the member has paid. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, InvoiceInput);
  const id = await requestInvoice(ctx.locals.runtime.db, member.id, input);
  return ok({ id }, translateAny(ctx.locals.apiLocale, 'account.invoiceRequested'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'account/invoice',
  GET: { ...MEMBERS, input: PageInput },
  POST: { ...OWNER, input: InvoiceInput },
});
