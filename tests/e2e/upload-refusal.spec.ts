// A page uploading without a token (or too much) gets the server's reply, not "Failed to fetch":
// the server reads and drops the rest of the body before answering.
import { expect, test } from '@playwright/test';

test('a 5 MB upload without a token reads the "need login" envelope in Chromium', async ({ page }) => {
  await page.goto('/');
  const replies = await page.evaluate(async () => {
    const out: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const body = new FormData();
      body.append('file', new Blob([new Uint8Array(5 * 1024 * 1024).fill(7)], { type: 'image/png' }), 'big.png');
      try {
        const res = await fetch('/api/ajax/upload?driver=local&topic=default', { method: 'POST', body, headers: { 'think-lang': 'en' } });
        out.push({ status: res.status, body: await res.json() });
      } catch (err) {
        out.push({ error: String(err) });
      }
    }
    return out;
  });
  for (const reply of replies) expect(reply).toMatchObject({ status: 200, body: { code: 303, msg: 'Please log in first' } });
});

test('a body over the server limit reads the 413 envelope in Chromium', async ({ page }) => {
  await page.goto('/');
  const reply = await page.evaluate(async () => {
    try {
      const res = await fetch('/api/ask/post', { method: 'POST', headers: { 'content-type': 'application/json', 'think-lang': 'en' }, body: `"${'x'.repeat(20 * 1024 * 1024)}"` });
      return { status: res.status, body: await res.json() };
    } catch (err) {
      return { error: String(err) };
    }
  });
  expect(reply).toMatchObject({ status: 413, body: { code: 0, msg: 'The request body is too large; the limit is 16 MB' } });
});
