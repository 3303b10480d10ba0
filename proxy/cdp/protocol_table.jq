# protocol_table.jq: the rows of proxy/cdp/protocol_table.inc (`make protocol-table`)
# from protocol descriptions in browser_protocol.json's form, read with jq -s:
# per command and event, its parameters (a command's returns too) as
# "name:T name:T", T the JSON type: i integer, n number, b boolean, s string,
# o object, a array, * any. A $ref is resolved to its type's JSON type.
def letter: {integer: "i", number: "n", boolean: "b", string: "s", object: "o",
             array: "a", any: "*"}[.] // error("unknown type \(.)");
[.[].domains[]] as $domains
| ([$domains[] | .domain as $d | (.types // [])[] | {key: "\($d).\(.id)", value: .type}]
   | from_entries) as $types
| def shape($d): map("\(.name):\(.type // $types[if (."$ref" | contains(".")) then ."$ref"
                                                   else "\($d).\(."$ref")" end]
                                 | letter)") | join(" ");
$domains[] | .domain as $d
| ((.commands // [])[]
   | "\t{ \"\($d).\(.name)\", 'c', \"\(.parameters // [] | shape($d))\", \"\(.returns // [] | shape($d))\" },"),
  ((.events // [])[]
   | "\t{ \"\($d).\(.name)\", 'e', \"\(.parameters // [] | shape($d))\", \"\" },")
