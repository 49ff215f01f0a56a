x = →KeyError("Keyword argument %s was specified but unrecognised" % k)
