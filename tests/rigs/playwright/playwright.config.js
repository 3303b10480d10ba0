// A small Playwright suite as users write them, run by the real test runner
// (`npx playwright test`) with the browser launched through cdpproxy's
// wrapper: the one line that matters is launchOptions.executablePath.
// tests/integration/80-wrapper-playwright.t runs it; RIG_URL is its server.
const { defineConfig } = require('@playwright/test');

module.exports = defineConfig({
  testDir: './specs',
  workers: 2,
  retries: 0,
  timeout: 60000,
  outputDir: process.env.RIG_OUT || 'test-results',
  use: {
    headless: true,
    baseURL: process.env.RIG_URL,
    launchOptions: { executablePath: process.env.CDPPROXY_BROWSER },
  },
});
