CREATE TABLE "invoice" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"amount" bigint NOT NULL,
	"title" varchar(120) NOT NULL,
	"tax_id" varchar(30) DEFAULT '' NOT NULL,
	"email" varchar(100) NOT NULL,
	"status" varchar(10) DEFAULT 'pending' NOT NULL,
	"remark" varchar(255) DEFAULT '' NOT NULL,
	"create_time" bigint NOT NULL,
	"update_time" bigint NOT NULL,
	CONSTRAINT "invoice_status_chk" CHECK ("invoice"."status" in ('pending','issued','rejected'))
);
--> statement-breakpoint
CREATE INDEX "invoice_user_idx" ON "invoice" USING btree ("user_id","id");