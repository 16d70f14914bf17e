import { z } from 'zod';
import { api, envelope, readInput } from '../../../lib/server/http';
import { Code } from '../../../lib/shared/codes';
import { cities, districts, provinces } from '../../../lib/server/area/area';
import { routeAccess, ANYONE } from '../../../lib/shared/access';

// An empty parameter counts as absent, as in BuildAdmin. Other parameters (the client's `uuid`,
// which only defeats request de-duplication) are ignored.
const blank = (v: unknown): unknown => (v === '' ? undefined : v);
const Input = z.object({
  province: z.preprocess(blank, z.string().regex(/^\d{2}$/, 'area.provinceInvalid').optional()),
  city: z.preprocess(blank, z.string().regex(/^\d{4}$/, 'area.cityInvalid').optional()),
}).refine((q) => q.city === undefined || q.province !== undefined, { path: ['province'], message: 'area.cityNeedsProvince' });

/**
 * The data changes only with a package update: browsers and proxies may keep a reply for a day,
 * one per language (the names are Chinese or English, the codes the same).
 */
const CACHE = { 'cache-control': 'public, max-age=86400', vary: 'think-lang, ba-lang, cookie, accept-language' };

/** Provinces; with `province`, its cities; with `province` and `city`, that city's districts. Unknown codes give []. */
export const GET = api(async (ctx) => {
  const { province, city } = await readInput(ctx, Input);
  const locale = ctx.locals.apiLocale;
  const data = province === undefined ? provinces(locale) : city === undefined ? cities(province, locale) : districts(province, city, locale);
  return envelope({ code: Code.ok, msg: '', data }, 200, CACHE);
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  GET: { ...ANYONE, input: Input },
});
