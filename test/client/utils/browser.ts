import { browser } from '../../../src/client/common/browser';

/**
 * jsdom cannot leave the page, so setup.ts replaces `browser.assign` with a mock before each test;
 * this returns it for assertions: `expect(assignMock()).toHaveBeenCalledWith('/')`.
 */
export function assignMock(): jest.MockedFunction<typeof browser.assign> {
  return browser.assign as jest.MockedFunction<typeof browser.assign>;
}
