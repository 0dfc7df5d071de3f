import { configDefaults, defineConfig } from 'vitest/config';

const everyTest = ['src/**/*.test.ts', 'test/**/*.test.ts'];

/**
 * Folders whose tests run wholly in the test process (parsing, rules, the pipeline's and executor's
 * in-memory paths): no child processes, servers, temporary folders or process-wide settings. Their
 * files share one module graph per worker (`isolate: false`) instead of loading the bash grammar and
 * efferent's modules again for every file, which took a quarter of their CPU time. Every other file
 * gets a fresh worker process. A file added here must not change process-wide state.
 */
const inProcess = [
  'src/cli/terminal/*.test.ts',
  'src/core/*.test.ts',
  'src/permissions/decide/shell/*.test.ts',
  'src/permissions/rules/*.test.ts',
  'src/pipeline/*.test.ts',
  'src/registry/*.test.ts',
  'src/shell/*.test.ts',
  'test/executor/*.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'in-process', include: inProcess, isolate: false } },
      {
        extends: true,
        test: { name: 'isolated', include: everyTest, exclude: [...configDefaults.exclude, ...inProcess] },
      },
    ],
  },
});
