"""Builds the ~1 MB benchmark pages from real fixtures (written to a work folder):
- v4-trippin-people.json: the TripPin Person of tripinServEntity.json (full metadata, with
  its property type annotations), repeated with distinct UserName/Concurrency values, in a
  V4 collection {"@odata.context", "value": [...]}.
- v2-employees.json: the six Employee entries (with inline Team, /Date()/ values, complex
  Location) of JsonRoomsToEmployeesWithInlineTeams.json, repeated with distinct EmployeeId,
  in {"d": {"__count", "results": [...]}}.
The Atom case uses LargeEmployeeFeed.xml (673 KB, 432 entries) as it is."""
import copy, json, os, sys

fixtures, out = sys.argv[1], sys.argv[2]
o4 = os.path.join(fixtures, "apache/olingo-odata4/lib/client-core/src/test/resources/org/apache/olingo/client/core/")
o2 = os.path.join(fixtures, "apache/olingo-odata2/odata2-lib/odata-core/src/test/resources/")
target = 1_000_000

person = json.load(open(o4 + "tripinServEntity.json"))
context = person.pop("@odata.context").replace("/$entity", "")
items, size, i = [], 0, 0
while size < target:
    p = copy.deepcopy(person)
    p["UserName"] = "user%06d" % i
    p["Concurrency"] = 636293755917400747 + i
    p["@odata.id"] = "People('user%06d')" % i
    items.append(p)
    size += len(json.dumps(p))
    i += 1
with open(os.path.join(out, "v4-trippin-people.json"), "w") as f:
    json.dump({"@odata.context": context, "value": items}, f)

feed = json.load(open(o2 + "JsonRoomsToEmployeesWithInlineTeams.json"))["d"]["results"]
items, size, i = [], 0, 0
while size < target:
    e = copy.deepcopy(feed[i % len(feed)])
    e["EmployeeId"] = str(1000 + i)
    e["__metadata"]["uri"] = e["__metadata"]["id"] = "http://localhost:8080/ReferenceScenario.svc/Employees('%d')" % (1000 + i)
    items.append(e)
    size += len(json.dumps(e))
    i += 1
with open(os.path.join(out, "v2-employees.json"), "w") as f:
    json.dump({"d": {"__count": str(len(items)), "results": items}}, f)
