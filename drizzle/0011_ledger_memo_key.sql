ALTER TABLE "user_money_log" ADD COLUMN "memo_key" varchar(64) DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "user_money_log" ADD COLUMN "memo_params" text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "user_score_log" ADD COLUMN "memo_key" varchar(64) DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "user_score_log" ADD COLUMN "memo_params" text DEFAULT '{}' NOT NULL;