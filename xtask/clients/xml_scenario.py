"""A scenario in XML through Python dataclasses xsdata generates from the served XML Schema
(`/core-v1.xsd`, `cargo xtask clients`), against a server on the demo catalogue: locales, keywords,
a classification with nested nodes, channels and a briefing read as XML into typed objects; a
keywords persist built from those classes sent as XML and its batch answer read; a 404 error body
read. Operations are addressed by their operationId in the served `/openapi.json`.

python xml_scenario.py <base URL> <token>, with the wheel `cargo xtask clients` builds installed
(its module core_interface_client.xml_bindings)
"""

import json
import sys
import time
import urllib.error
import urllib.request

from core_interface_client.xml_bindings import Kwd, Kwds, Name, NameItm, Pim, Response
from core_interface_client.xml_bindings.core_v1_briefing import PatchBriefing
from xsdata.formats.dataclass.parsers import XmlParser
from xsdata.formats.dataclass.serializers import XmlSerializer
from xsdata.formats.dataclass.serializers.config import SerializerConfig

base, token = sys.argv[1:3]
# The installed wheel, not a generated folder, is what the scenario runs.
if "site-packages" not in sys.modules[Pim.__module__].__file__:
    raise SystemExit(f"the client is not the installed wheel: {sys.modules[Pim.__module__].__file__}")

XML = "application/xml"
NAMESPACE = Pim.Meta.namespace


def check(condition, message):
    if not condition:
        raise SystemExit(f"xsdata XML scenario failed: {message}")


with urllib.request.urlopen(f"{base}/openapi.json") as answer:
    document = json.load(answer)
paths = {
    operation["operationId"]: path
    for path, item in document["paths"].items()
    for operation in item.values()
    if isinstance(operation, dict) and "operationId" in operation
}


def call(operation, body, content_type="application/json"):
    """POSTs a body (JSON unless said) asking for XML; answers the status and the XML text."""
    data = json.dumps(body).encode() if content_type == "application/json" else body.encode()
    request = urllib.request.Request(
        base + paths[operation],
        data=data,
        method="POST",
        headers={
            "Authorization": f"Bearer {token}",
            "Content-Type": content_type,
            "Accept": XML,
        },
    )
    try:
        with urllib.request.urlopen(request) as answer:
            status, media, text = answer.status, answer.headers["Content-Type"], answer.read()
    except urllib.error.HTTPError as error:
        status, media, text = error.code, error.headers["Content-Type"], error.read()
    check(media.startswith(XML), f"{operation} answered {media}")
    return status, text.decode()


parser = XmlParser()
steps = []

status, text = call("localesRetrieve", {"mode": "ALL"})
locales = parser.from_string(text, Pim)
tids = [locale.tid for locale in locales.locales.locale]
check(status == 200 and "de_DE" in tids, f"locales: {status} {tids}")
steps.append(f"locales: {len(tids)}")

status, text = call("keywordsRetrieve", {"path": "/Season", "level": -1})
season = parser.from_string(text, Pim)
children = [kwd.path for kwd in season.kwds.kwd]
check(status == 200 and "/Season/Summer" in children, f"keywords: {children}")
summer = next(kwd for kwd in season.kwds.kwd if kwd.path == "/Season/Summer")
check(summer.name.itm[0].value == "Summer", f"a keyword's name: {summer.name!r}")
steps.append(f"keywords under /Season: {len(children)}")

status, text = call(
    "classesRetrieve", {"tids": ["Apparel"], "withNodes": True, "flatNodes": False}
)
classes = parser.from_string(text, Pim)
apparel = classes.classes.class_value[0]
root = apparel.nodes.node[0]
check(status == 200 and apparel.tid == "Apparel", f"classes: {apparel.tid}")
check(root.nodes is not None and root.nodes.node, f"nested nodes under {root.path}")
steps.append(f"classification Apparel: root {root.path} with {len(root.nodes.node)} children")

status, text = call("channelsRetrieve", {"tids": ["WEB-SHOP", "CAT-2027"]})
channels = parser.from_string(text, Pim)
found = [project.tid for project in channels.projects.project]
check(status == 200 and found == ["WEB-SHOP", "CAT-2027"], f"channels: {found}")
steps.append("channels: WEB-SHOP, CAT-2027")

status, text = call(
    "retrieveChannelBriefings",
    {
        "tids": ["CAT-2027-SHIRTS-P1"],
        "briefingInfo": {"locale": "en_GB", "briefingModuleCfgTid": "BRIEFING-DEFAULT"},
    },
)
check(status == 200, f"briefing: {status} {text}")
briefing = parser.from_string(text, PatchBriefing)
widths = [a.value for a in briefing.layout.attribute if a.identifier == "width"]
check(status == 200 and widths, f"briefing: {status} {briefing.layout!r}")
steps.append(f"briefing: layout {briefing.layout.id}, width {widths[0]}")

name = f"xsdata {time.time_ns()}"
request = Pim(
    kwds=Kwds(kwd=[Kwd(parent_path=summer.path, name=Name(itm=[NameItm(value=name)]))])
)
body = XmlSerializer(config=SerializerConfig(indent="  ")).render(
    request, ns_map={None: NAMESPACE}
)
status, text = call("keywordsPersist", body, content_type=XML)
persisted = parser.from_string(text, Pim)
record = persisted.responses.response[0]
check(status == 200 and record.status.value == "SUCCESS", f"keywords persist: {text}")
check(record.path == f"{summer.path}/{name}", f"the created keyword: {record.path}")
steps.append(f"keywords persist in XML: {record.path} ({record.description})")

status, text = call("keywordsRetrieve", {"path": "/Nowhere"})
error = parser.from_string(text, Response)
codes = [itm.value for issue in error.issues for itm in issue.itm if itm.key == "code"]
check(status == 404 and error.status.value == "ERROR", f"404: {status} {text}")
check(codes == ["1006"], f"issue codes {codes}")
steps.append("a 404 read as the error body: code 1006")

print("xsdata XML client: " + "; ".join(steps))
