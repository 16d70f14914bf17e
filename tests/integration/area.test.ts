import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw, startServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => { server = await startServer(); });
afterAll(async () => { await server?.stop(); });

type Reply = { code: number; msg: string; data: unknown; time: number };
type Options = { value: string; label: string }[];

async function area(query = '', headers: Record<string, string> = {}): Promise<Reply> {
  const res = await raw(server.url, `/api/ajax/area${query}`, { headers });
  expect(res.status).toBe(200);
  return res.json<Reply>();
}

describe('GET /api/ajax/area lookup', () => {
  it('lists the provinces without parameters', async () => {
    const body = await area();
    expect(body.code).toBe(1);
    const data = body.data as Options;
    expect(data.length).toBeGreaterThanOrEqual(31);
    expect(data[0]).toEqual({ value: '11', label: '北京市' });
    expect(data).toContainEqual({ value: '44', label: '广东省' });
  });

  it('lists the cities of a province', async () => {
    const body = await area('?province=44');
    expect(body.code).toBe(1);
    expect(body.data).toContainEqual({ value: '4403', label: '深圳市' });
    expect((body.data as Options).every((o) => o.value.startsWith('44'))).toBe(true);
  });

  it('lists the districts of a city, municipalities included', async () => {
    const shenzhen = await area('?province=44&city=4403');
    expect(shenzhen.data).toContainEqual({ value: '440305', label: '南山区' });
    expect(await area('?province=11')).toMatchObject({ code: 1, data: [{ value: '1101', label: '市辖区' }] });
    const beijing = await area('?province=11&city=1101');
    expect(beijing.data).toContainEqual({ value: '110108', label: '海淀区' });
  });

  it('ignores the client uuid and empty parameters', async () => {
    const body = await area('?province=44&city=&uuid=3f1c0a52-8a4e-4c8e-9f7e-2d7b6c1d0e9a');
    expect(body.code).toBe(1);
    expect(body.data).toContainEqual({ value: '4401', label: '广州市' });
  });

  it('answers [] for a city outside the province and for unknown codes', async () => {
    expect(await area('?province=11&city=4403')).toMatchObject({ code: 1, data: [] });
    expect(await area('?province=99')).toMatchObject({ code: 1, data: [] });
    expect(await area('?province=44&city=4499')).toMatchObject({ code: 1, data: [] });
  });

  it('treats the controller case-insensitively', async () => {
    const res = await raw(server.url, '/api/Ajax/area?province=44');
    expect(res.json<Reply>().data).toContainEqual({ value: '4403', label: '深圳市' });
  });

  it('lets browsers keep a reply for a day', async () => {
    const res = await raw(server.url, '/api/ajax/area?province=44');
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });
});

describe('GET /api/ajax/area bad input', () => {
  it.each([
    ['zh-cn', '?province=abc', 'province', '省份编码应为 2 位数字'],
    ['en', '?province=110000', 'province', 'The province code must be 2 digits'],
    ['zh-cn', '?province=44&city=44', 'city', '城市编码应为 4 位数字'],
    ['en', '?province=44&city=x4403', 'city', 'The city code must be 4 digits'],
    ['zh-cn', '?city=4403', 'province', '查询城市的区县时需同时提供省份编码'],
    ['en', '?city=4403', 'province', 'Give the province code together with the city code'],
  ])('%s %s answers code 0 naming the field', async (lang, query, field, message) => {
    const res = await raw(server.url, `/api/ajax/area${query}`, { headers: { 'think-lang': lang } });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json<Reply>();
    expect(body.code).toBe(0);
    expect(body.msg).toBe(message);
    expect(body.data).toEqual({ fields: { [field]: message } });
  });
});

describe('GET /api/ajax/area in English', () => {
  it('names provinces, cities and districts in English for an English reader, with the same codes', async () => {
    const provinces = (await area('', { 'ba-lang': 'en' })).data as Options;
    expect(provinces[0]).toEqual({ value: '11', label: 'Beijing' });
    expect(provinces).toContainEqual({ value: '44', label: 'Guangdong' });
    expect((await area('?province=44', { cookie: 'ba-lang=en' })).data).toContainEqual({ value: '4403', label: 'Shenzhen' });
    expect((await area('?province=44&city=4403', { 'think-lang': 'en' })).data).toContainEqual({ value: '440305', label: 'Nanshan District' });
    const res = await raw(server.url, '/api/ajax/area', { headers: { 'ba-lang': 'en' } });
    expect(res.headers.vary).toMatch(/ba-lang/);
  });
});
