print("odatastore")
