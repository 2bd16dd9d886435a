/**
 * The API reference (`GET /api/docs`) in a real browser: Swagger UI, served by the service itself,
 * renders every operation of the OpenAPI document, requesting nothing from any other origin and
 * breaking no rule of its Content-Security-Policy. Screenshots: `test-output/screenshots/docs-*.png`.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { buildOpenApiDocument } from '../../src/lib/openapi/document.js';
import { launchChromium, screenshot, watchPage } from '../support/browser.js';
import { startTestService, type TestService } from '../support/service.js';

let env: TestService;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  env = await startTestService();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(20_000);
});
afterAll(async () => {
  await browser?.close();
  await env.close();
});

describe('GET /api/docs in Chromium', () => {
  test('renders every operation of the document, from this origin only', async () => {
    const watch = watchPage(page, [new URL(env.service.apiUrl).origin]);
    const document = buildOpenApiDocument() as { paths: Record<string, Record<string, unknown>>; webhooks?: Record<string, Record<string, unknown>>; info: { title: string } };
    // The operations under `paths`, and the events the service POSTs to webhooks (OpenAPI 3.1 `webhooks`).
    const expected = [...Object.entries(document.paths), ...Object.entries(document.webhooks ?? {})]
      .flatMap(([route, item]) => Object.keys(item).filter((key) => ['get', 'put', 'post', 'delete', 'patch'].includes(key)).map((method) => `${method.toUpperCase()} ${route}`))
      .sort();

    await page.goto(`${env.service.apiUrl}/docs`);
    await page.locator('.info .title').filter({ hasText: document.info.title }).waitFor();
    await page.locator('.opblock').nth(expected.length - 1).waitFor();
    const shown = await page.$$eval('.opblock', (blocks) =>
      blocks.map((block) => `${block.querySelector('.opblock-summary-method')?.textContent?.trim()} ${block.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`),
    );
    expect(shown.sort()).toEqual(expected);
    await expect(page.getByRole('button', { name: /Authorize/ }).count()).resolves.toBeGreaterThan(0);
    await screenshot(page, 'docs-01-reference');

    // One operation opened: its parameters, request body and responses.
    await page.locator('#operations-Envelopes-UpdateEnvelope .opblock-summary-control').click();
    await page.locator('#operations-Envelopes-UpdateEnvelope .responses-table').waitFor();
    expect(await page.locator('#operations-Envelopes-UpdateEnvelope').textContent()).toContain('If-Match');
    await screenshot(page.locator('#operations-Envelopes-UpdateEnvelope'), 'docs-02-operation');

    expect(watch.foreignRequests).toEqual([]);
    expect(watch.errors).toEqual([]);
  });
});
