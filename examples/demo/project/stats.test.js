import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mean, sum } from './stats.js';

test('sum adds every value', () => {
  assert.equal(sum([1, 2, 3, 4]), 10);
});

test('mean of an empty list is 0', () => {
  assert.equal(mean([]), 0);
});

test('mean divides the sum by the count', () => {
  assert.equal(mean([2, 4, 6]), 4);
});
