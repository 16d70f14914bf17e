-- Ledger entries written before memo keys existed: the memos Atrium itself wrote get their key and
-- values, so they too are read in the reader's language. Other memos (typed by an operator) stay
-- as written.
UPDATE "user_score_log" SET "memo_key" = 'user.ledger.memo.checkIn', "memo_params" = json_build_object('date', substring("memo" from '^Daily check-in (\d{4}-\d{2}-\d{2})$'))::text
  WHERE "memo_key" = '' AND "memo" ~ '^Daily check-in \d{4}-\d{2}-\d{2}$';--> statement-breakpoint
UPDATE "user_score_log" SET "memo_key" = 'user.ledger.memo.post', "memo_params" = json_build_object('id', substring("memo" from '^Post #(\d+) published$'))::text
  WHERE "memo_key" = '' AND "memo" ~ '^Post #\d+ published$';--> statement-breakpoint
UPDATE "user_score_log" SET "memo_key" = 'user.ledger.memo.accepted', "memo_params" = json_build_object('id', substring("memo" from '^Answer #(\d+) accepted$'))::text
  WHERE "memo_key" = '' AND "memo" ~ '^Answer #\d+ accepted$';--> statement-breakpoint
UPDATE "user_score_log" SET "memo_key" = 'user.ledger.memo.sale', "memo_params" = json_build_object('uid', substring("memo" from '^sale module:(\S+) order:\S+$'), 'order', substring("memo" from '^sale module:\S+ order:(\S+)$'))::text
  WHERE "memo_key" = '' AND "memo" ~ '^sale module:\S+ order:\S+$';--> statement-breakpoint
UPDATE "user_score_log" SET "memo_key" = 'user.ledger.memo.buy', "memo_params" = json_build_object('uid', substring("memo" from '^module:(\S+) order:\S+$'), 'order', substring("memo" from '^module:\S+ order:(\S+)$'))::text
  WHERE "memo_key" = '' AND "memo" ~ '^module:\S+ order:\S+$';--> statement-breakpoint
UPDATE "user_money_log" SET "memo_key" = 'user.ledger.memo.buy', "memo_params" = json_build_object('uid', substring("memo" from '^module:(\S+) order:\S+$'), 'order', substring("memo" from '^module:\S+ order:(\S+)$'))::text
  WHERE "memo_key" = '' AND "memo" ~ '^module:\S+ order:\S+$';
