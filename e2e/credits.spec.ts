import { expect, test } from '@playwright/test';
import { watchForErrors } from './support/watchForErrors';

test('a newcomer adds credits through the local test checkout and sees the balance and the transaction', async ({ page }) => {
  const errors = watchForErrors(page);
  await page.goto('/signin');
  await page.getByLabel('Login name').fill('e2e-credits');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'My Projects' })).toBeVisible();

  await page.getByRole('button', { name: 'View & Add Credits' }).click();
  const dialog = page.getByRole('dialog', { name: 'Credits' });
  // The sign-up credit, as a completed add.
  await expect(dialog.getByTestId('credits-balance')).toHaveText('$5.00');
  await expect(dialog.getByRole('list', { name: 'Transaction History' }).getByRole('listitem')).toHaveCount(1);

  await dialog.getByRole('button', { name: '$25' }).click();
  const popupOpened = page.waitForEvent('popup');
  await dialog.getByRole('button', { name: 'Add Credits' }).click();
  const checkout = await popupOpened;
  watchForErrors(checkout);
  await expect(dialog.getByLabel('Amount (USD)')).toHaveValue('');

  await expect(checkout.getByText('No card is asked for and no money moves')).toBeVisible();
  await expect(dialog.locator('li.transaction-pending')).toHaveCount(1);
  await checkout.getByRole('button', { name: 'Pay $25.00' }).click();

  await expect(checkout).toHaveURL(/\/payment-success\?purchase=[0-9a-f-]{36}&payment_id=test_[0-9a-f-]+&status=succeeded$/);
  await expect(checkout.getByRole('heading', { name: 'Payment Successful' })).toBeVisible();
  await expect(checkout.getByTestId('credits-added')).toHaveText('+$25.00');
  await expect(checkout.getByTestId('new-balance')).toHaveText('$30.00');

  // Back in the app: the history refreshes (every 5 s after the link opened) and the balance follows.
  await expect(dialog.locator('li.transaction-completed')).toHaveCount(2, { timeout: 15_000 });
  await expect(dialog.locator('li.transaction-pending')).toHaveCount(0);
  await expect(dialog.getByTestId('credits-balance')).toHaveText('$30.00', { timeout: 15_000 });

  // The success page counts down to the projects, where the payment banner shows.
  await expect(checkout.getByText('Payment successful! Your credits have been added to your account.')).toBeVisible({ timeout: 15_000 });
  expect(errors).toEqual([]);
});
