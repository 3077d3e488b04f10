graph [
  comment "linkpatrol link graph"
  directed 1
  node [
    id 0
    label "http://SITE/"
    state "ok"
    result "200 OK"
    internal 1
  ]
  node [
    id 1
    label "http://SITE/a.html"
    state "ok"
    result "200 OK"
    internal 1
  ]
  node [
    id 2
    label "http://SITE/b.html"
    state "ok"
    result "200 OK"
    internal 1
  ]
  node [
    id 3
    label "http://SITE/missing"
    state "broken"
    result "404 Not Found"
    internal 1
  ]
  node [
    id 4
    label "http://SITE/new.html"
  ]
  node [
    id 5
    label "http://SITE/old"
    state "ok"
    result "200 OK"
    internal 1
  ]
  node [
    id 6
    label "http://SITE/search?q=a&amp;b=%22c%22"
    state "broken"
    result "404 Not Found"
    internal 1
  ]
  node [
    id 7
    label "http://EXT/ext"
    state "ok"
    result "200 OK"
    internal 0
  ]
  node [
    id 8
    label "javascript:void(0)"
    state "ignored"
    result "ignored: javascript: URLs are not checked"
    internal 0
  ]
  node [
    id 9
    label "mailto:someone@example.org"
    state "ok"
    result "Valid"
    internal 0
  ]
  edge [
    source 0
    target 1
    kind "link"
  ]
  edge [
    source 0
    target 3
    kind "link"
  ]
  edge [
    source 0
    target 5
    kind "link"
  ]
  edge [
    source 0
    target 7
    kind "link"
  ]
  edge [
    source 0
    target 8
    kind "link"
  ]
  edge [
    source 0
    target 9
    kind "link"
  ]
  edge [
    source 1
    target 0
    kind "link"
  ]
  edge [
    source 1
    target 2
    kind "link"
  ]
  edge [
    source 1
    target 3
    kind "link"
  ]
  edge [
    source 2
    target 1
    kind "link"
  ]
  edge [
    source 2
    target 6
    kind "link"
  ]
  edge [
    source 4
    target 0
    kind "link"
  ]
  edge [
    source 5
    target 4
    kind "redirect"
  ]
]
