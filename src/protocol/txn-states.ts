// The values of __transaction_state's TransactionLogValue.transactionStatus, by their names in
// Kafka's TransactionState (what the broker keeps and what kafka-dump-log prints).
export const TXN_STATE_NAMES: readonly string[] = [
  'Empty',
  'Ongoing',
  'PrepareCommit',
  'PrepareAbort',
  'CompleteCommit',
  'CompleteAbort',
  'Dead',
  'PrepareEpochFence',
];
