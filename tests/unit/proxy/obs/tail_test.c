/* tail_test: the live view's ring: order, wrap-around, lost entries. */
#include <string.h>

#include "tail.h"
#include "tap.h"

int main(void)
{
	struct tail t;
	struct log_rec rec = { .conn = 3, .to = UP, .kind = "command", .method = "Page.enable",
			       .method_len = 11, .bytes = 42 };
	uint64_t lost, next;
	json_t *a;
	char longname[200];

	tail_init(&t, 8);
	a = tail_json(&t, 1, 100, &lost, &next);
	ok(json_array_size(a) == 0 && lost == 0 && next == 1, "empty: nothing, nothing lost, next 1");
	json_decref(a);
	for (int i = 0; i < 5; i++)
		tail_message(&t, &rec, 1000 + (uint64_t)i);
	tail_note(&t, "mark", 3, "phase 2", 2000);
	a = tail_json(&t, 1, 100, &lost, &next);
	is_int(json_array_size(a), 6, "six entries");
	is_int(next, 7, "next is 7");
	is_str(json_string_value(json_object_get(json_array_get(a, 0), "method")), "Page.enable",
	       "a message's method");
	is_str(json_string_value(json_object_get(json_array_get(a, 5), "label")), "phase 2",
	       "a mark's label");
	json_decref(a);
	for (int i = 0; i < 10; i++)
		tail_message(&t, &rec, 3000);
	a = tail_json(&t, 7, 100, &lost, &next);
	is_int(lost, 2, "a reader at 7 when the ring holds 9 to 16: 2 lost");
	is_int(json_array_size(a), 8, "and the 8 the ring holds");
	is_int(json_integer_value(json_object_get(json_array_get(a, 0), "seq")), 9, "from seq 9");
	json_decref(a);
	a = tail_json(&t, 9, 3, &lost, &next);
	ok(json_array_size(a) == 3 && next == 12 && lost == 0, "at most max entries; next follows");
	json_decref(a);
	memset(longname, 'x', sizeof longname);
	memcpy(longname + 62, "\xc3\xa9", 2);   /* a character across the cut */
	rec.method = longname;
	rec.method_len = sizeof longname;
	tail_message(&t, &rec, 4000);
	a = tail_json(&t, t.next_seq - 1, 1, &lost, &next);
	ok(json_array_size(a) == 1 &&
	   strlen(json_string_value(json_object_get(json_array_get(a, 0), "method"))) == 62,
	   "a long method is cut at a character's start");
	json_decref(a);
	tail_free(&t);
	return tap_done();
}
