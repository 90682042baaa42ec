#!/usr/bin/env bash
# A merchant's integration suite in bash and curl (no Node, no Python): what the CI recipes of
# docs/run-anywhere.md are run with by test/recipes.test.ts. It walks most of the sandbox's
# behaviours (magic amounts, statuses, faults, limits, beneficiaries, every verification,
# checkout) on the demo merchant and a manual clock, and handles them carefully: a payout answered
# 500 is retried under the SAME client_ref_id, Unknown is waited out, a reversal is read back.
# NAIVE=1 makes it resend that payout under a new client_ref_id: the double payout the review's
# high rule double-payout-after-timeout flags. Exit 1 when the sandbox answers something else
# than the suite expects.
set -euo pipefail
BASE=${PAYOUT_SANDBOX_URL:-http://127.0.0.1:4010}
AUTH=()
[ -n "${PAYOUT_SANDBOX_ADMIN_TOKEN:-}" ] && AUTH=(-H "authorization: Bearer $PAYOUT_SANDBOX_ADMIN_TOKEN")
H=(-H 'x-merchant-email: demo@payout-sandbox.test' -H 'x-api-key: sbx_key_demo_0001' -H 'x-api-secret: sbx_secret_demo_0001' -H 'content-type: application/json')
VAN=DEMOVAN0000000000001
RUN=${SUITE_RUN:-$(printf "%05d" $$)}   # ids are 5 to 30 characters

# "STATUS BODY" of a call; a dropped connection answers "000".
call() { curl -s -o /tmp/suite-body.$$ -w '%{http_code}' "$@" || true; echo " $(cat /tmp/suite-body.$$ 2>/dev/null)"; }
expect() { # expect WHAT PATTERN ANSWER
  if ! grep -qE "$2" <<<"$3"; then echo "FAIL $1: expected /$2/, got: ${3:0:300}" >&2; exit 1; fi
  echo "ok   $1"
}
advance() { call "${AUTH[@]}" -H 'content-type: application/json' -X POST "$BASE/__sandbox/clock/advance" -d "{\"by\":\"$1\"}" >/dev/null; }
payout() { # payout CLIENT_REF_ID AMOUNT
  call "${H[@]}" "$BASE/api/v1/public/payment/transfer" -d "{\"client_ref_id\":\"$1\",\"transfer_type\":\"BANK\",\"amount\":$2,
    \"payment_method\":\"1001\",\"debit_from\":\"$VAN\",\"beneficiary_name\":\"Ravi Kumar\",\"beneficiary_email\":\"ravi@example.com\",
    \"beneficiary_mobile\":\"9812345670\",\"account_number\":\"50100012345678\",\"ifsc_code\":\"HDFC0001234\",\"purpose\":\"VENDOR_PAYOUT\",\"remarks\":\"suite\"}"
}
status() { call "${H[@]}" "$BASE/api/v1/public/payment/transfer/status?client_ref_id=$1"; }
verify() { call "${H[@]}" "$BASE/api/v1/public/verification/" -d "{\"debit_from\":\"$VAN\",\"verification_type\":\"$1\",$2}"; }

# Rejections by magic amount (envelope B, HTTP 400): nothing is paid, nothing to retry.
for pair in 1001.01:TRANSACTION_LIMIT_EXCEEDED 1001.02:INSUFFICIENT_BALANCE 1001.03:ACCOUNT_NOT_ACTIVE \
  1001.04:TRANSACTION_AMOUNT_NOT_COMPATIBLE_WITH_PAYMENT_MODE 1001.05:INVALID_BENEFICIARY 1001.06:INVALID_TRANSFER_ID 1001.07:GENERIC_EXCEPTION; do
  expect "rejected ${pair#*:}" "^400 .*\"code\":\"${pair#*:}\"" "$(payout "R$RUN-${pair%%:*}" "${pair%%:*}")"
done
expect "validation" '^400 .*client ref id field is required' "$(call "${H[@]}" "$BASE/api/v1/public/payment/transfer" -d '{}')"
expect "wrong secret" '^401 ' "$(call -H 'x-merchant-email: demo@payout-sandbox.test' -H 'x-api-key: sbx_key_demo_0001' -H 'x-api-secret: wrong' "$BASE/api/v1/public/balance/check?account_no=$VAN")"

# Payouts that move: each polled to its end on the manual clock.
for amount in 100.11 2002.01 2002.03 2002.05 2002.06 2002.09; do expect "made $amount" '^200 .*"success":true' "$(payout "P$RUN-$amount" $amount)"; done
expect "NEW at first" '"status":"NEW"' "$(status "P$RUN-2002.06")"
expect "Pending" '"status":"Pending"' "$(status "P$RUN-100.11")"
expect "moved on by the 1st check" '"status":"Pending"' "$(status "P$RUN-2002.09")"
expect "Success on the 2nd check" '"status":"Success"' "$(status "P$RUN-2002.09")"
advance 6s
expect "Success" '"status":"Success"' "$(status "P$RUN-100.11")"
expect "Failed" '"status":"Failed"' "$(status "P$RUN-2002.01")"
expect "Unknown: not a failure, not paid again" '"status":"Unknown"' "$(status "P$RUN-2002.03")"
expect "Success before its reversal" '"status":"Success"' "$(status "P$RUN-2002.05")"
advance 6s
expect "NEW, then Success" '"status":"Success"' "$(status "P$RUN-2002.06")"
advance 1h
expect "Unknown resolved" '"status":"Success"' "$(status "P$RUN-2002.03")"
expect "reversal read back" '"status":"Failed"' "$(status "P$RUN-2002.05")"

# Read-after-write lag: "not found" right after initialize does not mean "not made".
expect "made 2002.08" '^200 ' "$(payout "LAG$RUN" 2002.08)"
expect "not visible yet" 'Unable to find transaction' "$(status "LAG$RUN")"
advance 6s
expect "visible later" '"status":"(Pending|Success)"' "$(status "LAG$RUN")"

# Faults: a 500 that made the payout, retried safely; a 503 that did not; a dropped connection.
expect "500 although made" '^500 ' "$(payout "F$RUN-1" 3003.01)"
if [ "${NAIVE:-}" = 1 ]; then
  payout "F$RUN-1-retry-$RANDOM" 3003.01 >/dev/null   # the bug: a new id for the same payment
else
  expect "the same id again: nothing paid twice" 'Duplicate Client Reference ID' "$(payout "F$RUN-1" 3003.01)"
fi
expect "503, nothing made" '^503 ' "$(payout "F$RUN-2" 3003.03)"
expect "dropped" '^000 ' "$(payout "F$RUN-3" 3003.04)"
expect "dropped, yet made" '"status":"Pending"' "$(status "F$RUN-3")"
advance 6s
expect "the 500's payout settled" '"status":"Success"' "$(status "F$RUN-1")"
expect "the dropped one's too" '"status":"Success"' "$(status "F$RUN-3")"

# Limits: a 4th status check of one payout within a minute is refused with Retry-After; honoured.
for i in 1 2 3; do status "P$RUN-100.11" >/dev/null; done
expect "rate-limited" '^429 ' "$(status "P$RUN-100.11")"
advance 1m
for i in $(seq 11); do last=$(call "${H[@]}" "$BASE/api/v1/public/balance/check?account_no=$VAN"); done
expect "balance rate-limited" '^429 ' "$last"
advance 1m

# Beneficiaries: Pending, then Active after the activation delay.
expect "beneficiary Pending" '^200 .*beneficiary_id' "$(call "${H[@]}" "$BASE/api/v1/public/beneficiary/create" -d '{"transfer_type":"BANK",
  "beneficiary_name":"Anita Desai","beneficiary_email":"anita@example.com","beneficiary_mobile":"9123456780","account_number":"00123456'"$RANDOM"'","ifsc_code":"ICIC0001234"}')"
advance 25h
expect "503 with Retry-After on create" '^503 ' "$(call "${H[@]}" "$BASE/api/v1/public/beneficiary/create" -d '{"transfer_type":"BANK",
  "beneficiary_name":"Anita Desai","beneficiary_email":"anita@example.com","beneficiary_mobile":"9123456780","account_number":"503503503503","ifsc_code":"ICIC0001234"}')"

# Every verification, valid and invalid.
expect "BANK" '"valid":true' "$(verify BANK '"bank":{"account_no":"50100012345678","ifsc_code":"HDFC0001234"}')"
expect "BANK invalid" '"valid":false' "$(verify BANK '"bank":{"account_no":"000000000000","ifsc_code":"HDFC0001234"}')"
expect "PAN" '"valid":true' "$(verify PAN '"pan":{"pan_number":"ABCPE1234F","name":"Anita Desai"}')"
expect "PAN invalid" '"valid":false' "$(verify PAN '"pan":{"pan_number":"ZZZZZ0000Z"}')"
expect "DL" '"valid":true' "$(verify DRIVING_LICENSE '"dl":{"dl_number":"MH0220150012345","dob":"1990-01-01"}')"
expect "DL invalid" '"valid":false' "$(verify DRIVING_LICENSE '"dl":{"dl_number":"ZZ0000000000000","dob":"1990-01-01"}')"
expect "VOTER_ID" '"valid":true' "$(verify VOTER_ID '"voter_id":{"voter_id_number":"ABC1234567"}')"
expect "VOTER_ID invalid" '"valid":false' "$(verify VOTER_ID '"voter_id":{"voter_id_number":"ZZZ0000000"}')"
expect "PASSPORT" '"valid":true' "$(verify PASSPORT '"passport":{"file_number":"MH1234567890","dob":"1990-01-01"}')"
expect "PASSPORT invalid" '"valid":false' "$(verify PASSPORT '"passport":{"file_number":"ZZ0000000000","dob":"1990-01-01"}')"
expect "CIN" '"valid":true' "$(verify CIN '"cin":{"cin_number":"U72900MH2015PTC123456"}')"
expect "CIN invalid" '"valid":false' "$(verify CIN '"cin":{"cin_number":"U00000ZZ0000ZZZ000000"}')"
expect "GSTIN" '"valid":true' "$(verify GSTIN '"gstin":{"gstin_number":"27ABCPE1234F1Z5"}')"
expect "GSTIN invalid" '"valid":false' "$(verify GSTIN '"gstin":{"gstin_number":"00ZZZZZ0000Z1Z0"}')"
expect "IFSC" '"valid":true' "$(verify IFSC '"ifsc":{"ifsc_code":"HDFC0001234"}')"
expect "IFSC invalid" '"valid":false' "$(verify IFSC '"ifsc":{"ifsc_code":"ZZZZ0000000"}')"
expect "AADHAAR invalid" '"valid":false' "$(verify AADHAAR '"aadhaar":{"aadhaar_number":"000000000000"}')"
otp=$(verify AADHAAR '"aadhaar":{"aadhaar_number":"234567890123"}')
expect "AADHAAR OTP sent" '"otp_sent":true' "$otp"
ref=$(grep -oE 'OTP[0-9]{12}' <<<"$otp" | head -1)
expect "AADHAAR wrong OTP" '"valid":false' "$(verify AADHAAR '"aadhaar":{"aadhaar_number":"234567890123","otp":"654321","ref_id":"'"$ref"'"}')"
expect "AADHAAR" '"valid":true' "$(verify AADHAAR '"aadhaar":{"aadhaar_number":"234567890123","otp":"123456","ref_id":"'"$ref"'"}')"

# Checkout: a transaction in each state.
for pair in 1:Initialized 2:Success 3:Failed 4:Dropped; do
  expect "checkout ${pair#*:}" "\"status\":\"${pair#*:}\"" \
    "$(call -H MerchantId:SBXDEMO0001 -H AccessToken:sbx_token_demo_0001 "$BASE/api/v1/payment/transaction/PAYDEMO000000000${pair%%:*}/status")"
done
rm -f /tmp/suite-body.$$
echo "suite passed"
