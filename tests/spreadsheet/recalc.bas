REM Basic module used by tests/spreadsheet/check.sh (installed as Standard.Module1 into a
REM throw-away LibreOffice profile). Opens the document the way a user does (a hidden
REM window, so a view exists and the on-load link update runs), then saves the calculated
REM document as flat ODF for check.sh to read. Arguments are strings: numeric macro-URL
REM arguments were dropped by LibreOffice 7.4 ("Argument is not optional").
REM Every error is caught: an unhandled Basic error opens a dialog that hangs --headless.

Sub Logit(sLog As String, s As String)
    Dim n As Integer
    n = FreeFile
    Open sLog For Append As #n
    Print #n, s
    Close #n
End Sub

Sub Run(sIn As String, sOut As String, sLog As String)
    On Error GoTo Fail
    Dim oDoc As Object
    Dim aLoad(1) As New com.sun.star.beans.PropertyValue
    aLoad(0).Name = "Hidden" : aLoad(0).Value = True
    REM com.sun.star.document.UpdateDocMode.FULL_UPDATE: update links without asking. It still
    REM only happens when the document sits in a trusted location (check.sh sets SecureURL).
    aLoad(1).Name = "UpdateDocMode" : aLoad(1).Value = com.sun.star.document.UpdateDocMode.FULL_UPDATE
    oDoc = StarDesktop.loadComponentFromURL(ConvertToURL(sIn), "_blank", 0, aLoad())
    If IsNull(oDoc) Then
        Logit(sLog, "error: could not load " & sIn)
        StarDesktop.terminate()
        Exit Sub
    End If
    Logit(sLog, "loaded " & sIn)
    Dim aStore(0) As New com.sun.star.beans.PropertyValue
    aStore(0).Name = "FilterName" : aStore(0).Value = "OpenDocument Spreadsheet Flat XML"
    oDoc.storeToURL(ConvertToURL(sOut), aStore())
    Logit(sLog, "stored " & sOut)
    oDoc.close(True)
    StarDesktop.terminate()
    Exit Sub
Fail:
    Logit(sLog, "error: Basic error " & Err & " (" & Error$ & ") at line " & Erl)
    On Error Resume Next
    If Not IsNull(oDoc) Then oDoc.close(True)
    StarDesktop.terminate()
End Sub
