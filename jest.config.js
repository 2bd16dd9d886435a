/**
 * Jest runs the compiled ES modules in dist/ (`npm test` builds first), so tests exercise exactly the
 * JavaScript that `npm start` and the Functions host run, worker threads included.
 * @type {import('jest').Config}
 */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/dist/tests'],
  testMatch: ['**/*.test.js'],
  globalSetup: '<rootDir>/dist/tests/support/globalSetup.js',
  globalTeardown: '<rootDir>/dist/tests/support/globalTeardown.js',
  // Stops each test file's seal worker thread once the file is done (see the file).
  setupFilesAfterEnv: ['<rootDir>/dist/tests/support/testFileTeardown.js'],
  // Jest's order, except that the longest files start first when jest's cache has no duration for them (see the file).
  testSequencer: '<rootDir>/dist/tests/support/testSequencer.js',
  // A test's own deadline; TEST_TIME_SCALE (tests/support/patience.ts) stretches it on a busy machine.
  testTimeout: Math.round(60000 * (Number(process.env.TEST_TIME_SCALE) > 0 ? Number(process.env.TEST_TIME_SCALE) : 1)),
  maxWorkers: 2,
  // A worker that has run many files holds their module registries; past this heap it is replaced
  // before its next file. Without it the suite's long-lived workers took longer than Jest's 500 ms to
  // exit at the end ("A worker process has failed to exit gracefully"), and the suite ran slower.
  workerIdleMemoryLimit: '768MB',
};
