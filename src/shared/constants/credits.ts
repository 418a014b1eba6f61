/**
 * Credits, payment and the payment success page (part 1 sections 2, 4, 5, 8, 9; part 2 sections 2, 4, 9).
 * 1 credit is 1 USD; amounts travel as dollars.
 */

export const CREDIT_LIMITS = {
  /** Smallest top-up, in dollars. */
  minAmount: 1,
  /** Largest top-up, in dollars. */
  maxAmount: 10_000,
  quickAmounts: [10, 25, 50, 100],
  usdPerCredit: 1,
  /** Credits are shown in dollars with this many decimals. */
  balanceDecimals: 2,
  /** The amount input accepts only digits with an optional single decimal point. */
  amountInputPattern: '^[0-9]*\\.?[0-9]*$',
} as const;

/** Timings of the credits dialog, in milliseconds. */
export const CREDITS_TIMING = {
  balancePollMs: 10_000,
  /** After a payment link opens, the transaction list refreshes this often ... */
  transactionRefreshMs: 5_000,
  /** ... for this long. */
  transactionRefreshWindowMs: 5 * 60_000,
} as const;

export const TRANSACTION_TYPES = ['add', 'use', 'refund'] as const;
export type TransactionTypeName = (typeof TRANSACTION_TYPES)[number];

/** Statuses the server gives a transaction; the client shows them as received and styles by them. */
export const TRANSACTION_STATUSES = ['pending', 'completed', 'failed'] as const;
export type TransactionStatusName = (typeof TRANSACTION_STATUSES)[number];

export const CREDITS_TEXT = {
  title: 'Credits',
  aboutOneCredit: '1 credit = $1 USD',
  neverExpire: 'Credits never expire.',
  /** Pay button label while the payment link is being created. */
  creatingLink: 'Creating Link...',
  currentBalance: 'Current Balance',
  /** Under the balance when part of it came from the local test checkout. */
  testCredits: (amount: string): string => `Includes ${amount} of test credits from the local test checkout: no money moved.`,
  addCredits: 'Add Credits',
  amountLabel: 'Amount (USD)',
  amountPlaceholder: 'Enter amount',
  payButton: 'Add Credits',
  history: 'Transaction History',
  noTransactions: 'No transactions yet',
  aboutCredits: 'About Credits',
} as const;

export const CREDIT_ERRORS = {
  invalidAmount: 'Please enter a valid amount greater than $0',
  belowMinimum: 'Minimum amount is $1',
  aboveMaximum: 'Maximum amount is $10,000',
  transactionsLoad: 'Failed to load transaction history',
  /** Appended to the payment error message in the alert. */
  paymentSuffix: 'Please try again or contact support if the problem persists.',
  paymentFallback: 'Failed to initiate payment',
  noPaymentLink: 'Payment link not received from backend',
  /** 402 of an agent call that starts with no credits left; the chat shows it as the reply. */
  outOfCredits:
    "You are out of credits. Add credits with 'View & Add Credits' on the projects home to continue; a reply already running finishes.",
} as const;

/** Payment alert text: '{message} Please try again or contact support if the problem persists.' */
export const paymentFailureText = (message: string | undefined): string =>
  `${message || CREDIT_ERRORS.paymentFallback} ${CREDIT_ERRORS.paymentSuffix}`;

/**
 * The credit amount rule of part 1 section 5: the error text for `input`, or null when it may be paid.
 * Shared so that the client's alert and the server's 400 say the same thing.
 */
export const creditAmountError = (input: string): string | null => {
  const amount = Number(input);
  if (input.trim() === '' || !Number.isFinite(amount) || amount <= 0) return CREDIT_ERRORS.invalidAmount;
  if (amount < CREDIT_LIMITS.minAmount) return CREDIT_ERRORS.belowMinimum;
  if (amount > CREDIT_LIMITS.maxAmount) return CREDIT_ERRORS.aboveMaximum;
  // Payments are in whole cents: '1.234' is not an amount anyone can be charged.
  if (!/^\d*\.?\d{0,2}$/.test(input.trim())) return CREDIT_ERRORS.invalidAmount;
  return null;
};

/**
 * The same rule for a JSON body's `amount`, as the server applies it: only a JSON number counts (the
 * string "10" is refused), then the text rules above.
 */
export const creditAmountValueError = (amount: unknown): string | null =>
  typeof amount === 'number' && Number.isFinite(amount) ? creditAmountError(String(amount)) : CREDIT_ERRORS.invalidAmount;

/** Payment page texts of the local test checkout (our own page; no money moves). */
export const TEST_CHECKOUT_TEXT = {
  title: 'Test checkout',
  notice: 'This is a test checkout. No card is asked for and no money moves: Pay adds test credits to your account.',
  pay: 'Pay',
  cancel: 'Cancel',
  closed: 'This payment is already closed.',
} as const;

/** App routes of the payment success page (both lead to the same screen). */
export const PAYMENT_SUCCESS_PATHS = ['/credits/success', '/payment-success'] as const;

export const PAYMENT_SUCCESS = {
  processing: 'Processing Payment...',
  title: 'Payment Successful',
  creditsAdded: 'Credits Added',
  newBalance: 'New Balance',
  paymentDetails: 'Payment Details',
  goToProjects: 'Go to Projects',
  refreshBalance: 'Refresh Balance',
  /** Seconds counted down before the automatic redirect to /app. */
  redirectCountdownSeconds: 8,
  /** Delay before the new balance is fetched, in milliseconds. */
  balanceFetchDelayMs: 1_000,
  paymentId: 'Payment ID',
  status: 'Status',
  redirecting: (seconds: number): string => `Redirecting to your projects in ${seconds} second${seconds === 1 ? '' : 's'}...`,
} as const;
